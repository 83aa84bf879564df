//! `benchdiff completions SHELL` and `benchdiff man`: shell completion scripts and man pages
//! generated from the clap definitions of [`super::Cli`], so they list exactly the commands
//! and options the binary parses.

use super::Io;
use std::path::PathBuf;

/// The subcommands that describe the command line itself rather than benchmarks.
#[derive(clap::Subcommand, Debug)]
pub(super) enum ShellCommand {
    /// Print a shell completion script for bash, zsh or fish to stdout.
    #[command(after_help = "EXAMPLES:
  benchdiff completions bash > ~/.local/share/bash-completion/completions/benchdiff
  benchdiff completions zsh > \"${fpath[1]}/_benchdiff\"
  benchdiff completions fish > ~/.config/fish/completions/benchdiff.fish")]
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff) to stdout, or with --dir write one page per command there.
    #[command(after_help = "EXAMPLES:
  benchdiff man | man -l -
  benchdiff man --dir ~/.local/share/man/man1")]
    Man {
        /// Write benchdiff.1 and a page per subcommand (benchdiff-report.1, …) into DIR,
        /// which must exist.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// A shell `benchdiff completions` writes a script for.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(super) enum Shell {
    /// GNU bash (bash-completion).
    Bash,
    /// Z shell (compsys).
    Zsh,
    /// fish.
    Fish,
}

/// Writes the completion script or man page `cmd` asks for; returns the exit code (0).
///
/// # Errors
/// Writing to stdout, or a page into `--dir`, failed.
pub(super) fn run(cmd: ShellCommand, io: &mut Io<'_>) -> anyhow::Result<i32> {
    let mut clap_cmd = super::examples::command();
    match cmd {
        ShellCommand::Completions { shell } => {
            let shell = match shell {
                Shell::Bash => clap_complete::Shell::Bash,
                Shell::Zsh => clap_complete::Shell::Zsh,
                Shell::Fish => clap_complete::Shell::Fish,
            };
            // The generators panic on a write error: they write to memory, and only the
            // copy to stdout can fail (a closed pipe ends quietly, as for every command).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut clap_cmd, "benchdiff", &mut script);
            io.stdout.write_all(&script)?;
        }
        ShellCommand::Man { dir: None } => clap_mangen::Man::new(clap_cmd).render(io.stdout)?,
        ShellCommand::Man { dir: Some(dir) } => clap_mangen::generate_to(clap_cmd, &dir)
            .map_err(|e| anyhow::anyhow!("writing man pages into {}: {e}", dir.display()))?,
    }
    Ok(0)
}
