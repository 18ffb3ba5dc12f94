//! Command-line entry points. One module per subcommand; each exposes `Args` and `run`.

use clap::{Parser, Subcommand};

mod approvals_cmd;
mod audit_cmd;
mod audit_recorded;
mod check_cmd;
mod completions_cmd;
mod doctor_cmd;
mod eval_cmd;
mod exit;
mod explain_cmd;
mod hook_cmd;
mod import_cmd;
mod install_cmd;
mod log_cmd;
mod output;
mod parse_cmd;
mod policy_cmd;
mod policy_files;
mod program;
mod test_cmd;
mod trust_args;

pub use exit::Exit;

/// shellgate: decide whether an AI agent's shell command runs silently, needs a person, or is
/// refused.
#[derive(Debug, Parser)]
#[command(name = "shellgate", version, about, long_about = None)]
pub struct Cli {
    /// Colour: `auto` (on a terminal, unless `NO_COLOR` is set), `always` or `never`.
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = Colour::Auto)]
    color: Colour,
    #[command(subcommand)]
    command: Command,
}

/// When to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Colour {
    /// On a terminal that supports it, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the clause graph of a command.
    Parse(parse_cmd::Args),
    /// List, grant and revoke the approvals saved in the trust file.
    Approvals(approvals_cmd::Args),
    /// Validate policy files layered on the embedded default policy.
    Check(check_cmd::Args),
    /// Decide on a command: Approved (exit 0), NeedsPrompt (2) or HardDenied (3).
    Eval(eval_cmd::Args),
    /// Explain the decision on a command: its clauses, verdicts and deciding rules.
    Explain(explain_cmd::Args),
    /// Run the `[[test]]` cases of policy files.
    Test(test_cmd::Args),
    /// Replay agent command logs through the gate and summarise the decisions.
    Audit(audit_cmd::Args),
    /// Answer an agent's pre-tool hook (JSON on standard input); always exits 0.
    Hook(hook_cmd::Args),
    /// Put the shellgate hook into an agent's settings file (or take it out).
    Install(install_cmd::Args),
    /// Check that shellgate is installed and working for each agent; exit 0 only when all is well.
    Doctor(doctor_cmd::Args),
    /// Show the hook's audit log: what each agent asked, what was decided and answered.
    Log(log_cmd::Args),
    /// Print the embedded default policy, or where each policy layer and the trust file live.
    Policy(policy_cmd::Args),
    /// Print a shell completion script (bash, zsh, fish, powershell or elvish).
    Completions(completions_cmd::Args),
    /// Bring another tool's permission rules over (`import claude-settings SETTINGS.json`).
    Import(import_cmd::Args),
}

/// Runs the parsed command line and returns the process exit status.
///
/// A closed standard output ends a subcommand's output, never the process (see
/// [`output`]): the status is the subcommand's own, or 1 when writing failed otherwise.
pub fn run(cli: Cli) -> Exit {
    match cli.color {
        Colour::Auto => anstream::ColorChoice::Auto,
        Colour::Always => anstream::ColorChoice::Always,
        Colour::Never => anstream::ColorChoice::Never,
    }
    .write_global();
    let exit = match cli.command {
        Command::Parse(args) => parse_cmd::run(&args),
        Command::Approvals(args) => approvals_cmd::run(&args),
        Command::Check(args) => check_cmd::run(&args),
        Command::Eval(args) => eval_cmd::run(&args),
        Command::Explain(args) => explain_cmd::run(&args),
        Command::Test(args) => test_cmd::run(&args),
        Command::Audit(args) => audit_cmd::run(&args),
        Command::Hook(args) => hook_cmd::run(&args),
        Command::Install(args) => install_cmd::run(&args),
        Command::Doctor(args) => doctor_cmd::run(&args),
        Command::Log(args) => log_cmd::run(&args),
        Command::Policy(args) => policy_cmd::run(&args),
        Command::Completions(args) => completions_cmd::run(&args),
        Command::Import(args) => import_cmd::run(&args),
    };
    output::finish(exit)
}
