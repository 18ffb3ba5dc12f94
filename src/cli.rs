//! Command-line entry points. One module per subcommand; each exposes `Args` and `run`.

use clap::{Parser, Subcommand};

mod approvals_cmd;
mod check_cmd;
mod exit;
mod parse_cmd;

pub use exit::Exit;

/// shellgate: decide whether an AI agent's shell command runs silently, needs a person, or is
/// refused.
#[derive(Debug, Parser)]
#[command(name = "shellgate", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the clause graph of a command.
    Parse(parse_cmd::Args),
    /// List, grant and revoke the approvals saved in the trust file.
    Approvals(approvals_cmd::Args),
    /// Validate policy files layered on the embedded default policy.
    Check(check_cmd::Args),
}

/// Runs the parsed command line and returns the process exit status.
pub fn run(cli: Cli) -> Exit {
    match cli.command {
        Command::Parse(args) => parse_cmd::run(&args),
        Command::Approvals(args) => approvals_cmd::run(&args),
        Command::Check(args) => check_cmd::run(&args),
    }
}
