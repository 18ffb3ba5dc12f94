//! `shellgate policy show` prints the embedded default policy (so a diagnostic that points into
//! it points at text a person can read); `shellgate policy path [--policy FILE]… [--trust FILE]
//! [--json]` says where each policy layer, the trust file and the audit log live.

use std::path::PathBuf;

use serde_json::json;
use shellgate_rules::Policy;

use super::Exit;
use super::hook_cmd::audit_log_path;
use super::output::{errln, out, outln};
use super::policy_files;
use super::trust_args::PolicyFiles;

/// Print the embedded default policy, or where each policy layer and the trust file live.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Print the embedded default policy (`policies/default.toml` as built into this program).
    Show,
    /// Print where each policy layer, the trust file and the audit log live.
    Path(PathArgs),
}

/// The options of `policy path`.
#[derive(Debug, clap::Args)]
struct PathArgs {
    #[command(flatten)]
    files: PolicyFiles,
    /// The trust file (default: `$SHELLGATE_TRUST`, else the XDG location).
    #[arg(long, value_name = "FILE")]
    trust: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `shellgate policy`.
pub fn run(args: &Args) -> Exit {
    match &args.action {
        Action::Show => {
            out!("{}", Policy::default_source().text);
            Exit::Ok
        }
        Action::Path(args) => path(args),
    }
}

fn path(args: &PathArgs) -> Exit {
    let files = &args.files.policies;
    let default = files.iter().find(|file| policy_files::is_default(file));
    let users: Vec<String> = files
        .iter()
        .filter(|file| !policy_files::is_default(file))
        .map(|file| file.display().to_string())
        .collect();
    let trust = match shellgate_store::default_trust_path(args.trust.as_deref()) {
        Ok(path) => Some(path),
        Err(shellgate_store::StoreError::NoLocation) => None,
        Err(e) => {
            errln!("error: {e}");
            return Exit::Error;
        }
    };
    let audit = audit_log_path(None);
    if args.json {
        let shown = |path: Option<&PathBuf>| path.map(|p| p.display().to_string());
        outln!(
            "{}",
            json!({
                "default": shown(default),
                "user": users,
                "trust": shown(trust.as_ref()),
                "trust_exists": trust.as_ref().is_some_and(|p| p.exists()),
                "audit_log": shown(audit.as_ref()),
            })
        );
        return Exit::Ok;
    }
    match default {
        Some(file) => outln!(
            "default:   `{}` (replaces the embedded default)",
            file.display()
        ),
        None => outln!("default:   embedded in this program (`shellgate policy show` prints it)"),
    }
    if users.is_empty() {
        outln!("user:      none (add layers with --policy FILE)");
    }
    for user in &users {
        outln!("user:      `{user}`");
    }
    match &trust {
        Some(path) => outln!(
            "trust:     `{}`{}",
            path.display(),
            if path.exists() {
                ""
            } else {
                " (does not exist yet)"
            }
        ),
        None => outln!("trust:     no location (set HOME or SHELLGATE_TRUST)"),
    }
    match &audit {
        Some(path) => outln!("audit log: `{}` (the hook's default)", path.display()),
        None => outln!("audit log: no location (set HOME or SHELLGATE_AUDIT_LOG)"),
    }
    Exit::Ok
}
