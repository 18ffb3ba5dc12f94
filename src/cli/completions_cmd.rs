//! `shellgate completions SHELL`: a completion script for the shell, generated from the
//! command-line definition (clap_complete), so it always knows every subcommand and option.

use clap::CommandFactory as _;
use clap_complete::Shell;

use super::output::out;
use super::{Cli, Exit};

/// Print a shell completion script.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell: `bash`, `zsh`, `fish`, `powershell` or `elvish`.
    #[arg(value_name = "SHELL", value_enum)]
    shell: Shell,
}

/// Runs `shellgate completions`.
pub fn run(args: &Args) -> Exit {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "shellgate", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Exit::Ok
}
