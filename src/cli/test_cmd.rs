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
use super::output::{outln, painted};
use super::policy_files;

/// Run the `[[test]]` cases of policy files (and of the default policy).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also run the default policy's own cases (always done when no file is given).
    #[arg(long)]
    default: bool,
    /// Print one JSON object: every case with its outcome, and the counts.
    #[arg(long)]
    json: bool,
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
    let mut records = Vec::new();
    for case in &cases {
        let outcome = gate.run_case(case);
        if !outcome.passed {
            failed += 1;
        }
        if args.json {
            records.push(serde_json::json!({
                "name": outcome.name,
                "location": case.location.to_string(),
                "command": outcome.command,
                "passed": outcome.passed,
                "expected": outcome.expected,
                "actual": outcome.actual,
                "message": outcome.message,
            }));
        } else if outcome.passed {
            outln!("{}  {}", painted("pass"), outcome.name);
        } else {
            outln!(
                "{}  {} ({}): {}",
                painted("FAIL"),
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
    let passed = cases.len() - failed;
    if args.json {
        outln!(
            "{}",
            serde_json::json!({"cases": records, "passed": passed, "failed": failed})
        );
    } else {
        outln!("{passed} passed, {failed} failed");
    }
    if failed == 0 { Exit::Ok } else { Exit::Error }
}
