//! The `shellgate` command-line tool.

use std::process::ExitCode;

use clap::Parser as _;

mod cli;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::run(args).into()
}
