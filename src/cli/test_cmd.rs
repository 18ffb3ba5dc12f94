//! `shellgate test [--default] [FILE…]`: run the `[[test]]` cases of policy files.
//!
//! The files are layered on the embedded default policy as user layers (a file named
//! `default.toml` replaces the embedded default, and its cases run). With no file, or with
//! `--default`, the default policy's own cases run too. Prints one line per case and a
//! summary; exit 0 when every case passes, 1 when any fails or a file does not load.

use std::path::PathBuf;

use shellgate_policy::GateEvaluator;
use shellgate_rules::Layer;

use super::Exit;
use super::output::outln;
use super::policy_files;

/// Run the `[[test]]` cases of policy files (and of the default policy).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also run the default policy's own cases (always done when no file is given).
    #[arg(long)]
    default: bool,
    /// Policy files layered on the default.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Runs `shellgate test`.
pub fn run(args: &Args) -> Exit {
    let policy = match policy_files::load_or_report(&args.files) {
        Ok(policy) => policy,
        Err(exit) => return exit,
    };
    let replaced = args
        .files
        .iter()
        .any(|f| f.file_name().is_some_and(|n| n == "default.toml"));
    let run_default = args.default || args.files.is_empty() || replaced;
    let gate = GateEvaluator::new(policy);
    let cases: Vec<_> = gate
        .policy()
        .tests()
        .iter()
        .filter(|case| run_default || case.layer != Layer::Default)
        .cloned()
        .collect();
    let mut failed = 0_usize;
    for case in &cases {
        let outcome = gate.run_case(case);
        if outcome.passed {
            outln!("pass  {}", outcome.name);
        } else {
            failed += 1;
            outln!(
                "FAIL  {} ({}): {}",
                outcome.name,
                case.location,
                outcome.message
            );
            outln!(
                "      command: {}",
                shellgate_policy::display::escape(&outcome.command)
            );
        }
    }
    outln!("{} passed, {} failed", cases.len() - failed, failed);
    if failed == 0 { Exit::Ok } else { Exit::Error }
}
