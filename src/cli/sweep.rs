//! `benchdiff sweep`'s options (one build over a range of parameter values, like Node's
//! `benchmark/scatter.js`) and printing: the run is [`crate::run::command_bench`], the
//! points, table and plot [`crate::run::sweep`].

use super::Io;
use super::run_cmd::SingleArgs;
use crate::run::command_bench::{self, Outputs};
use crate::run::ending::Stop;
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
    let plan = args.single.plan(args.runs);
    plan.check_outputs(args.plot.as_deref())
        .map_err(Stop::usage)?;
    let prepared = plan.prepare(io.stderr)?;
    if let Some(x) = &args.x {
        sweep::check_x(&prepared.plan, x).map_err(Stop::usage)?;
    }
    let outputs = Outputs {
        csv: None,
        results: args.single.results.clone(),
        echo: None,
        progress: io.stderr_is_terminal,
    };
    let finished =
        command_bench::execute(&prepared.plan, args.single.fail_fast, outputs, io.stderr)?;
    let f = finished.map_err(Stop::usage)?;
    let code = super::ended(f.ended(true), None, io)?;
    let (metric, x, plot) = (
        args.metric.as_deref(),
        args.x.as_deref(),
        args.plot.as_deref(),
    );
    let swept = sweep::show(&prepared.plan, &f.set, metric, x, plot)?;
    writeln!(io.stdout, "{}", swept.table)?;
    super::say(&swept.lines, io)?;
    Ok(code.max(swept.code))
}
