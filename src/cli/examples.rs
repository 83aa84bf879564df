//! The EXAMPLES section that ends each command's help (`-h` and `--help`), after the text the
//! command's own definition gives. Every command line here is one the command accepts.

/// The command-line definition of [`super::Cli`] with each command's EXAMPLES appended to its
/// help; what `run` parses with and what completions and man pages are generated from.
pub(super) fn command() -> clap::Command {
    let mut cmd = <super::Cli as clap::CommandFactory>::command();
    // The commands' own definitions are applied when the command is built: build first, so
    // each command's own help text is there to append to.
    cmd.build();
    for (name, examples) in [
        ("report", REPORT),
        ("compare", COMPARE),
        ("calibrate", CALIBRATE),
        ("run", RUN),
        ("sweep", SWEEP),
        ("history", HISTORY),
        ("merge", MERGE),
    ] {
        cmd = cmd.mut_subcommand(name, |sub| {
            let text = match sub.get_after_help() {
                Some(own) => format!("{own}\n\n{examples}"),
                None => examples.to_owned(),
            };
            sub.after_help(text)
        });
    }
    cmd
}

/// `benchdiff report --help`.
pub(super) const REPORT: &str = "\
EXAMPLES:
  # compare.js CSV (from a file or a pipe), as a table, or as Node's compare.R prints it
  benchdiff report results.csv
  node benchmark/compare.js --old ./node-main --new ./node-pr url | benchdiff report
  benchdiff report --format r results.csv
  # two result files of another harness (Go, hyperfine, Google Benchmark, …): old, then new
  benchdiff report old.txt new.txt
  hyperfine --export-json new.json 'app --fast' && benchdiff report old.json new.json
  # a pull-request comment that fails CI when something got more than 5% slower for sure
  benchdiff report results.csv --format markdown -o comment.md --max-regression 5";

/// `benchdiff compare --help`.
pub(super) const COMPARE: &str = "\
EXAMPLES:
  # any command: two programs (or two builds), 10 interleaved rounds
  benchdiff compare --old 'gzip -1' --new 'gzip -9' --bench '-c {file}' -L file=a.txt,b.txt --runs 10
  # two git revisions, each built in a temporary worktree; run until each comparison is decided
  benchdiff compare --old-rev main --new-rev HEAD --build 'make' --artifact ./app \\
    --bench 'run {size}' -L size=100,10000 --runs auto
  # a suite file (benchdiff.toml)
  benchdiff compare --suite benchdiff.toml --csv results.csv
  # Node benchmark files under two node binaries, like benchmark/compare.js
  benchdiff compare --old ./node-main --new ./node-pr --runs 30 --filter next-tick process";

/// `benchdiff calibrate --help`.
pub(super) const CALIBRATE: &str = "\
EXAMPLES:
  # how noisy is this machine for the process/ benchmarks, and how many runs reach ±2%
  benchdiff calibrate --bin node --runs 30 --target-accuracy 2 process
  # pick n so that each configuration runs long enough (Node's calibrate-n)
  benchdiff calibrate --bin node --find-n n --filter next-tick-loop process";

/// `benchdiff run --help`.
pub(super) const RUN: &str = "\
EXAMPLES:
  # every configuration of a command once, each sample as a result line
  benchdiff run --bin './app' --bench 'run {size}' -L size=100,10000
  benchdiff run --bin 'gzip -9' --bench '-c {file}' -L file=a.txt --runs 5";

/// `benchdiff sweep --help`.
pub(super) const SWEEP: &str = "\
EXAMPLES:
  # the mean rate at each size, with its 95% interval, drawn against size
  benchdiff sweep --bin './app' --bench 'run {size}' -L size=10,100,1000,10000 --x size --plot sweep.svg";

/// `benchdiff history --help`.
pub(super) const HISTORY: &str = "\
EXAMPLES:
  benchdiff history add results.csv --commit \"$(git rev-parse HEAD)\" --branch main
  benchdiff history show --benchmark next-tick
  benchdiff history check --max-regression 5 --markdown comment.md   # exit 1 on a regression
  benchdiff history dashboard --out site/
  benchdiff compare --suite benchdiff.toml --history .benchdiff/history.db";

/// `benchdiff merge --help`.
pub(super) const MERGE: &str = "\
EXAMPLES:
  # after `compare … --shard K/4 --results shard-K.jsonl` on four machines
  benchdiff merge -o merged.jsonl shard-1.jsonl shard-2.jsonl shard-3.jsonl shard-4.jsonl
  benchdiff report merged.jsonl --format markdown -o comment.md";
