//! `benchdiff sweep`: one build over a range of parameter values, like Node's
//! `benchmark/scatter.js` (+ scatter.R): every configuration `--runs N` times (default 10), then
//! per configuration the mean rate with its 95% confidence interval
//! `mean ± qt(0.975, n−1) · sd / √n` (Student's t, as scatter.R's `confint` of the mean), as a
//! table, and with `--plot FILE.svg` a line per benchmark (and per value of the other
//! parameters) against the swept parameter (`--x KEY`, default the first one with several
//! values), with the intervals drawn as bars.
//!
//! Here only the options and the printing: the points are [`crate::run::sweep`] (the interval
//! [`crate::stats::precision::mean_ci`]), the table and plot [`crate::render::sweep`].

use super::command_bench;
use super::run_cmd::SingleArgs;
use super::{EXIT_USAGE, Io};
use crate::render;
use crate::run::command_bench::Outputs;
use crate::run::sweep;
use std::path::PathBuf;

/// Options of `benchdiff sweep`.
#[derive(clap::Args, Debug)]
pub(crate) struct SweepArgs {
    /// Runs per configuration.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(2..))]
    runs: u32,
    /// The metric to show (default `rate`; e.g. `wall`, `max_rss`, or a reported metric).
    #[arg(long, value_name = "NAME")]
    metric: Option<String>,
    /// The swept parameter (x axis); default: the first with more than one value.
    #[arg(long, value_name = "KEY")]
    x: Option<String>,
    /// Draw the sweep as SVG to FILE.svg.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    single: SingleArgs,
}

/// Runs `benchdiff sweep`; returns the exit code.
pub(crate) fn sweep(args: SweepArgs, io: &mut Io<'_>) -> anyhow::Result<i32> {
    if let Err(e) = args.single.check_outputs(args.plot.as_deref()) {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    let prepared = match args.single.plan(Some(args.runs), io)? {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    if let Some(x) = &args.x
        && let Err(e) = sweep::check_x(&prepared.plan, x)
    {
        writeln!(io.stderr, "benchdiff: {e}")?;
        return Ok(EXIT_USAGE);
    }
    let finished = crate::run::command_bench::execute(
        &prepared.plan,
        args.single.fail_fast,
        Outputs {
            csv: None,
            results: args.single.results.clone(),
            echo: None,
            progress: io.stderr_is_terminal,
        },
        io.stderr,
    )?;
    let f = match finished {
        Ok(f) => f,
        Err(e) => {
            writeln!(io.stderr, "benchdiff: {e}")?;
            return Ok(EXIT_USAGE);
        }
    };
    let mut code = command_bench::summarise(&f, true, io.stderr)?;
    let set = &f.set;
    let metric = match &args.metric {
        None => crate::sample::RATE,
        Some(m) => match set.find_metric(m) {
            Some(id) => id,
            None => {
                writeln!(io.stderr, "benchdiff: --metric {m}: no such metric")?;
                return Ok(EXIT_USAGE);
            }
        },
    };
    let m = set.metric(metric).clone();
    let points = sweep::points(&prepared.plan, set, metric);
    let t = render::sweep::table(set, &points, &m.name, &m.unit);
    writeln!(io.stdout, "{t}")?;
    if let Some(path) = &args.plot {
        match render::sweep::plot(set, &points, args.x.as_deref(), &m.name, &m.unit) {
            Ok(svg) => {
                if let Err(e) = std::fs::write(path, svg) {
                    writeln!(io.stderr, "benchdiff: --plot {}: {e}", path.display())?;
                    code = code.max(EXIT_USAGE);
                } else {
                    writeln!(io.stderr, "benchdiff: plot written to {}", path.display())?;
                }
            }
            Err(e) => {
                writeln!(io.stderr, "benchdiff: --plot: {e}")?;
                code = code.max(EXIT_USAGE);
            }
        }
    }
    Ok(code)
}
