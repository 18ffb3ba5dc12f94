//! `shellgate import claude-settings SETTINGS.json [--trust FILE] [--policy-out FILE]
//! [--dry-run]`: bring a Claude Code settings file's Bash permission rules over (see
//! [`shellgate::claude_import`] for what each form becomes).
//!
//! Allowed prefixes are added to the trust file (`--trust`, else the default location) for the
//! audience (`--audience`, default `personal`); deny and ask rules are written as `[[deny]]`
//! and `[[ask]]` rules to the new policy file `--policy-out` (an existing file with other
//! content is never overwritten), checked to load on the default policy first. Every rule is
//! listed with what it became or why it was not imported; `--dry-run` writes nothing and prints
//! the policy file instead. Exit 0 when the import was done (whatever was skipped), 1 on an
//! error.

use std::path::{Path, PathBuf};

use shellgate::claude_import::{self, Import, List, Outcome};
use shellgate_policy::{GrantRule, display};
use shellgate_rules::{Layer, PolicySource};
use shellgate_store::TrustStore;

use super::Exit;
use super::output::{errln, out, outln};
use super::policy_files::{self, report};
use super::trust_args::PolicyFiles;

/// Bring another tool's permission rules over.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    source: Source,
}

/// What to import.
#[derive(Debug, clap::Subcommand)]
enum Source {
    /// A Claude Code `settings.json`: `permissions.allow` Bash rules become trust-file
    /// patterns, `deny` and `ask` rules become `[[deny]]` and `[[ask]]` rules.
    ClaudeSettings(ClaudeArgs),
}

/// `import claude-settings`.
#[derive(Debug, clap::Args)]
struct ClaudeArgs {
    /// The Claude Code settings file (`~/.claude/settings.json`, `.claude/settings.json`…).
    #[arg(value_name = "SETTINGS.json")]
    settings: PathBuf,
    /// The trust file the allowed patterns are added to (default: as `approvals`).
    #[arg(long, value_name = "FILE")]
    trust: Option<PathBuf>,
    /// The audience the patterns are granted for.
    #[arg(long, value_name = "NAME", default_value = "personal")]
    audience: String,
    /// The policy file to write the deny and ask rules to (a new file).
    #[arg(long, value_name = "FILE")]
    policy_out: Option<PathBuf>,
    /// Write nothing; print what would be imported and the policy file.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    policy: PolicyFiles,
}

/// Runs `shellgate import`.
pub fn run(args: &Args) -> Exit {
    match &args.source {
        Source::ClaudeSettings(args) => match claude(args) {
            Ok(()) => Exit::Ok,
            Err(exit) => exit,
        },
    }
}

fn fail(message: &str) -> Exit {
    errln!("error: {message}");
    Exit::Error
}

fn claude(args: &ClaudeArgs) -> Result<(), Exit> {
    let text = std::fs::read_to_string(&args.settings)
        .map_err(|e| fail(&format!("cannot read `{}`: {e}", args.settings.display())))?;
    let policy = policy_files::load_or_report(&args.policy.policies)?;
    let rule = GrantRule::new(policy);
    let import = claude_import::import(&text, &rule)
        .map_err(|e| fail(&format!("`{}`: {e}", args.settings.display())))?;
    let out_name = args
        .policy_out
        .as_deref()
        .map_or_else(|| "imported.toml".to_owned(), |p| p.display().to_string());
    // The written rules must load on the default policy (and the `--policy` files).
    let mut sources = policy_files::sources(&args.policy.policies, Layer::User)
        .map_err(|_| fail("the policy files could not be read again"))?;
    sources.push(PolicySource::new(
        out_name.clone(),
        import.policy.clone(),
        Layer::User,
    ));
    if let Err(error) = shellgate_policy::load_policy(&sources) {
        report(&error);
        return Err(fail("the imported rules do not make a valid policy"));
    }
    out!("{}", summary(&import));
    let rules = import.rules(List::Deny) + import.rules(List::Ask);
    if args.dry_run {
        outln!("dry run: nothing written; the policy file would be:");
        out!("{}", import.policy);
        return Ok(());
    }
    let patterns: Vec<_> = import.patterns().collect();
    if !patterns.is_empty() {
        add_patterns(args, &patterns)?;
    }
    match (&args.policy_out, rules) {
        (_, 0) => {}
        (None, _) => outln!(
            "not written: {rules} deny and ask rules (give `--policy-out FILE` to write them)"
        ),
        (Some(path), _) => {
            write_new(path, &import.policy)?;
            outln!(
                "wrote {rules} deny and ask rules to `{}`; use it with `--policy {}`",
                path.display(),
                path.display()
            );
        }
    }
    Ok(())
}

/// One line per rule, then the counts, with the settings file's text escaped.
fn summary(import: &Import) -> String {
    let mut text = String::new();
    for entry in &import.entries {
        let became = match &entry.outcome {
            Outcome::Pattern(pattern) => format!("trust pattern `{pattern}`"),
            Outcome::Narrowed { pattern, why } => {
                format!("trust pattern `{pattern}` (narrower: {why})")
            }
            Outcome::Rule { id, matches } => {
                let table = if entry.list == List::Deny {
                    "deny"
                } else {
                    "ask"
                };
                format!("{table} rule `{id}` ({matches})")
            }
            Outcome::Skipped(why) => format!("not imported: {why}"),
        };
        // (Rule text comes from a settings file anyone may have written: control and
        // invisible characters are shown escaped, never sent to the terminal.)
        text.push_str(&format!(
            "{:<5} {} => {}\n",
            entry.list,
            display::escape(&entry.rule),
            display::escape(&became)
        ));
    }
    let patterns = import.patterns().count();
    let skipped = import.skipped().count();
    text.push_str(&format!(
        "imported: {patterns} trust patterns, {} deny rules, {} ask rules; not imported: {skipped} rules\n",
        import.rules(List::Deny),
        import.rules(List::Ask)
    ));
    text
}

/// Adds the patterns to the trust file.
fn add_patterns(
    args: &ClaudeArgs,
    patterns: &[&shellgate_policy::VerbPattern],
) -> Result<(), Exit> {
    let store_error = |e: &dyn std::fmt::Display| fail(&format!("the trust file: {e}"));
    let path =
        shellgate_store::default_trust_path(args.trust.as_deref()).map_err(|e| store_error(&e))?;
    let opened = TrustStore::open_with_home(&path, shellgate_store::home_dir())
        .map_err(|e| store_error(&e))?;
    if let Some(quarantine) = &opened.quarantined {
        errln!("warning: {quarantine}");
    }
    let mut store = opened.store;
    let mut added = 0;
    for pattern in patterns {
        let outcome = store
            .add_pattern(&args.audience, pattern)
            .map_err(|e| store_error(&e))?;
        if outcome.changed {
            added += 1;
        }
    }
    outln!(
        "trust file `{}`: {added} patterns added for audience `{}` ({} already there)",
        path.display(),
        args.audience,
        patterns.len() - added
    );
    Ok(())
}

/// Writes `text` to a new file `path` (an existing file with the same text is left alone; one
/// with other text is never overwritten).
fn write_new(path: &Path, text: &str) -> Result<(), Exit> {
    match std::fs::read_to_string(path) {
        Ok(existing) if existing == text => return Ok(()),
        Ok(_) => {
            return Err(fail(&format!(
                "`{}` exists and holds other rules; choose another `--policy-out` or remove it",
                path.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(fail(&format!("cannot read `{}`: {e}", path.display()))),
    }
    use std::io::Write as _;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        })
        .map_err(|e| fail(&format!("cannot write `{}`: {e}", path.display())))
}
