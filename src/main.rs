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
            // A broken `shellgate hook` command line must still stop the agent's tool call:
            // Claude Code, Codex and Gemini CLI all read exit status 2 as "block" (with the
            // message on standard error) and any other failure as "proceed".
            let hook = std::env::args_os().nth(1).is_some_and(|arg| arg == "hook");
            let code = match err.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => cli::Exit::Ok,
                _ if hook => cli::Exit::NeedsPrompt,
                _ => cli::Exit::Error,
            };
            // Printing can only fail on a closed stdout/stderr; the exit code still tells.
            let _ignored = err.print();
            code.into()
        }
    }
}
