//! The `benchdiff` binary: supplies the real streams to [`benchdiff::cli::run`].

use std::io::IsTerminal;

fn main() {
    let stdout = std::io::stdout();
    let is_tty = stdout.is_terminal();
    // Colour by the usual conventions, as anstream decides them: NO_COLOR (non-empty) turns
    // it off, CLICOLOR_FORCE (not 0) turns it on even off a terminal, CLICOLOR=0 turns it off,
    // otherwise on for a terminal whose TERM is not `dumb`.
    let color = matches!(
        anstream::AutoStream::choice(&stdout),
        anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi
    );
    // The table fits the terminal: its real width (TIOCGWINSZ), else $COLUMNS, else 120.
    let width = if is_tty {
        terminal_size::terminal_size_of(&stdout)
            .map(|(terminal_size::Width(w), _)| w)
            .filter(|w| *w > 0)
            .or_else(|| std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()))
            .or(Some(120))
    } else {
        None
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    // Not locked for the whole run: the progress bar draws to stderr from its own thread.
    let mut err = std::io::stderr();
    let mut io = benchdiff::cli::Io {
        stdout: &mut out,
        stderr: &mut err,
        color,
        width,
        stdout_is_terminal: is_tty,
        stderr_is_terminal: std::io::stderr().is_terminal(),
    };
    let code = benchdiff::cli::run(std::env::args_os().collect(), &mut io);
    use std::io::Write;
    let _ = out.flush();
    // Nothing of the run outlives a normal exit: the watchdog process ends first.
    benchdiff::run::child::watchdog::shutdown();
    std::process::exit(code);
}
