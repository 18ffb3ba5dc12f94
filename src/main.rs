//! The `shellgate` command-line tool.

use std::process::ExitCode;

use clap::Parser as _;
use clap::error::ErrorKind;

mod cli;

fn main() -> ExitCode {
    match cli::Cli::try_parse() {
        Ok(args) => cli::run(args).into(),
        Err(err) => {
            // Help and version requests are successes; every other clap error is a usage error,
            // which the exit-code contract maps to 1 (clap's own default would be 2, which
            // callers read as "needs a person").
            let code = match err.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => cli::Exit::Ok,
                _ => cli::Exit::Error,
            };
            // Printing can only fail on a closed stdout/stderr; the exit code still tells.
            let _ignored = err.print();
            code.into()
        }
    }
}
