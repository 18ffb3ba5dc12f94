//! `shellgate approvals`: show, grant and revoke the approvals persisted in the trust file.
//!
//! `trust-verb`, `trust-zone` and `trust-host` refuse what the policy's
//! [`GrantRule`](shellgate_policy::GrantRule) refuses (`bash *`, `git *`, the home directory,
//! `*.com`…),
//! with the narrower grant to give instead; `--policy` adds files to the embedded default, as
//! the hook's `--policy` does, so their shells, interpreters and wrappers count too.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Subcommand;
use shellgate_policy::{GrantRefusal, GrantRule, display};
use shellgate_rules::{Access, HostGrant, PatternError, VerbPattern, ZonePath};
use shellgate_store::{Grants, Outcome, Quarantine, StoreError, TrustStore, validate_audience};

use super::Exit;
use super::output::{errln, out, outln};
use super::policy_files::{self, LoadError};
use super::trust_args::PolicyFiles;

/// The audience changed when `--audience` is not given.
const DEFAULT_AUDIENCE: &str = "personal";

/// Show, grant and revoke persisted approvals.
#[derive(Debug, clap::Args)]
#[command(mut_arg("policies", |arg| arg.global(true)))]
pub struct Args {
    #[command(flatten)]
    policy: PolicyFiles,
    /// The trust file [default: $SHELLGATE_TRUST, else $XDG_CONFIG_HOME/shellgate/trust.toml,
    /// else ~/.config/shellgate/trust.toml].
    #[arg(long, value_name = "FILE", global = true)]
    trust: Option<PathBuf>,
    /// The audience to show or change [default: `personal`; `list` shows every audience].
    #[arg(long, value_name = "A", global = true)]
    audience: Option<String>,
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// List the trusted zones, patterns and hosts.
    List {
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Trust a directory for reading and writing (or only reading with --read-only).
    TrustZone {
        /// An absolute directory, or one starting with `~/` or `$HOME/`.
        dir: String,
        /// Trust it for reading only.
        #[arg(long)]
        read_only: bool,
    },
    /// Trust a verb pattern, such as 'git push origin main *'.
    TrustVerb {
        /// Literal command words, then one argument glob (quote it).
        pattern: String,
    },
    /// Grant plain reads (GET, HEAD, OPTIONS, nothing sent) of a host, such as
    /// `api.github.com`, or `*.example.com` for its subdomains.
    TrustHost {
        /// A host name or IP address, or `*.` and a domain (no scheme, port or path).
        host: String,
    },
    /// Revoke a trusted zone, pattern or host.
    Revoke {
        /// The directory to stop trusting.
        #[arg(
            long,
            value_name = "DIR",
            conflicts_with_all = ["pattern", "host"],
            required_unless_present_any = ["pattern", "host"]
        )]
        zone: Option<String>,
        /// The pattern to stop trusting.
        #[arg(long, value_name = "PATTERN", conflicts_with = "host")]
        pattern: Option<String>,
        /// The host grant to revoke.
        #[arg(long, value_name = "HOST")]
        host: Option<String>,
    },
}

/// Runs `shellgate approvals`.
pub fn run(args: &Args) -> Exit {
    match execute(args) {
        Ok(exit) => exit,
        Err(failure) => failure.report(),
    }
}

/// Why a command failed, and its exit status.
enum Failure {
    /// Usage or validation: exit 1.
    Invalid(Box<dyn miette::Diagnostic + Send + Sync>),
    /// Unreadable or unwritable store: exit 2.
    Store(StoreError),
    /// A store quarantined at open; nothing else was done: exit 2.
    Quarantined(Quarantine),
    /// The policy did not load: exit 1.
    Policy(LoadError),
}

impl From<PatternError> for Failure {
    fn from(err: PatternError) -> Self {
        Self::Invalid(Box::new(err))
    }
}

impl From<GrantRefusal> for Failure {
    fn from(err: GrantRefusal) -> Self {
        Self::Invalid(Box::new(err))
    }
}

impl From<StoreError> for Failure {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Invalid(_)
            | StoreError::InvalidAudience { .. }
            | StoreError::NoLocation => Self::Invalid(Box::new(err)),
            StoreError::Read { .. }
            | StoreError::Write { .. }
            | StoreError::Lock { .. }
            | StoreError::Quarantine { .. }
            | StoreError::Edit { .. }
            | StoreError::AuditOpen { .. }
            | StoreError::AuditWrite { .. }
            | StoreError::AuditRead { .. }
            | StoreError::AuditRecord { .. }
            | StoreError::AuditEncode { .. } => Self::Store(err),
        }
    }
}

/// A "not trusted" revoke: a validation error with a hint.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{what} `{text}` is not trusted for audience `{audience}`")]
#[diagnostic(help("run `shellgate approvals list` to see what is trusted"))]
struct NotTrusted {
    what: &'static str,
    text: String,
    audience: String,
}

/// `revoke` without exactly one target (clap normally catches this first).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("`revoke` needs exactly one of `--zone DIR`, `--pattern PATTERN` or `--host HOST`")]
#[diagnostic(help("such as `shellgate approvals revoke --pattern 'git push *'`"))]
struct RevokeWhat;

impl Failure {
    /// Prints the failure to stderr and returns its exit status.
    fn report(self) -> Exit {
        match self {
            Self::Invalid(diagnostic) => {
                print_error(diagnostic.as_ref());
                Exit::Error
            }
            Self::Store(err) => {
                print_error(&err);
                Exit::NeedsPrompt
            }
            Self::Policy(error) => {
                error.report();
                Exit::Error
            }
            Self::Quarantined(quarantine) => {
                warn_quarantine(&quarantine);
                errln!(
                    "  nothing else was done; run the command again to use the new, empty store"
                );
                Exit::NeedsPrompt
            }
        }
    }
}

/// Prints `error: …`, each cause, and the help text.
fn print_error(diagnostic: &dyn miette::Diagnostic) {
    errln!("error: {diagnostic}");
    let mut source = diagnostic.source();
    while let Some(cause) = source {
        errln!("  caused by: {cause}");
        source = cause.source();
    }
    if let Some(help) = diagnostic.help() {
        errln!("  help: {help}");
    }
}

/// Reports a quarantine loudly.
fn warn_quarantine(quarantine: &Quarantine) {
    errln!("warning: {quarantine}");
}

/// Does the work; `Ok` carries the exit status of a command that ran.
fn execute(args: &Args) -> Result<Exit, Failure> {
    if let Some(audience) = &args.audience {
        validate_audience(audience)?;
    }
    let path = shellgate_store::default_trust_path(args.trust.as_deref())?;
    let home = shellgate_store::home_dir();
    let opened = TrustStore::open_with_home(path, home.clone())?;
    if let Some(quarantine) = opened.quarantined {
        return Err(Failure::Quarantined(quarantine));
    }
    let mut store = opened.store;
    let audience = args.audience.as_deref().unwrap_or(DEFAULT_AUDIENCE);
    match &args.action {
        Action::List { json } => Ok(list(&store, args.audience.as_deref(), *json)),
        Action::TrustZone { dir, read_only } => {
            let zone = ZonePath::new(dir, home.as_deref())?;
            let access = if *read_only {
                Access::Read
            } else {
                Access::Write
            };
            rule(args)?.check_zone(zone.as_path(), access, home.as_deref())?;
            let outcome = store.add_zone(audience, &zone, access)?;
            Ok(granted(
                &outcome,
                &format!("zone `{zone}` ({access})"),
                audience,
            ))
        }
        Action::TrustVerb { pattern } => {
            let pattern: VerbPattern = pattern.parse()?;
            rule(args)?.check_pattern(&pattern)?;
            let outcome = store.add_pattern(audience, &pattern)?;
            Ok(granted(&outcome, &format!("pattern `{pattern}`"), audience))
        }
        Action::TrustHost { host } => {
            let host = rule(args)?.check_host(host)?;
            let outcome = store.add_host(audience, &host)?;
            Ok(granted(&outcome, &format!("host `{host}`"), audience))
        }
        Action::Revoke {
            zone,
            pattern,
            host,
        } => {
            let (what, text, outcome) = match (zone, pattern, host) {
                (Some(dir), None, None) => {
                    let zone = ZonePath::new(dir, home.as_deref())?;
                    (
                        "zone",
                        zone.to_string(),
                        store.revoke_zone(audience, &zone)?,
                    )
                }
                (None, Some(pattern), None) => {
                    let pattern: VerbPattern = pattern.parse()?;
                    (
                        "pattern",
                        pattern.to_string(),
                        store.revoke_pattern(audience, &pattern)?,
                    )
                }
                (None, None, Some(host)) => {
                    let host: HostGrant = host.parse()?;
                    (
                        "host",
                        host.to_string(),
                        store.revoke_host(audience, &host)?,
                    )
                }
                // clap enforces exactly one of the three; should it not, refuse rather than guess.
                (Some(_), Some(_), _)
                | (Some(_), _, Some(_))
                | (_, Some(_), Some(_))
                | (None, None, None) => {
                    return Err(Failure::Invalid(Box::new(RevokeWhat)));
                }
            };
            if let Some(quarantine) = &outcome.quarantined {
                warn_quarantine(quarantine);
            }
            if !outcome.changed {
                return Err(Failure::Invalid(Box::new(NotTrusted {
                    what,
                    text,
                    audience: audience.to_owned(),
                })));
            }
            outln!(
                "revoked: {what} `{}` for audience `{}`",
                display::escape(&text),
                display::escape(audience)
            );
            Ok(finish(outcome.quarantined.as_ref()))
        }
    }
}

/// The grant rule of the embedded default policy and the `--policy` files.
fn rule(args: &Args) -> Result<GrantRule, Failure> {
    policy_files::load(&args.policy.policies)
        .map(GrantRule::new)
        .map_err(Failure::Policy)
}

/// Says what a grant did (`trusted: host `x` for audience `a``, or `already trusted: …`) and
/// finishes as [`finish`] does.
fn granted(outcome: &Outcome, what: &str, audience: &str) -> Exit {
    let verb = if outcome.changed {
        "trusted"
    } else {
        "already trusted"
    };
    outln!(
        "{verb}: {} for audience `{}`",
        display::escape(what),
        display::escape(audience)
    );
    finish(outcome.quarantined.as_ref())
}

/// Exit 0, or 2 after a quarantine that happened during the edit.
fn finish(quarantined: Option<&Quarantine>) -> Exit {
    match quarantined {
        Some(quarantine) => {
            warn_quarantine(quarantine);
            Exit::NeedsPrompt
        }
        None => Exit::Ok,
    }
}

/// The `list --json` object.
#[derive(serde::Serialize)]
struct Listing<'a> {
    trust_file: String,
    audiences: BTreeMap<&'a str, Grants>,
}

/// Prints every audience (or only `only`), as text or JSON.
fn list(store: &TrustStore, only: Option<&str>, json: bool) -> Exit {
    let selected: BTreeMap<&str, Grants> = match only {
        Some(audience) => BTreeMap::from([(audience, store.snapshot(audience))]),
        None => store
            .audiences()
            .map(|(name, grants)| (name, grants.clone()))
            .collect(),
    };
    if json {
        let listing = Listing {
            trust_file: store.path().display().to_string(),
            audiences: selected,
        };
        return match serde_json::to_string(&listing) {
            Ok(text) => {
                outln!("{text}");
                Exit::Ok
            }
            // Strings and lists always encode; should that change, say so rather than print half.
            Err(err) => {
                errln!("error: cannot encode the listing: {err}");
                Exit::Error
            }
        };
    }
    let mut out = String::new();
    out.push_str(&format!("trust file: {}\n", store.path().display()));
    if selected.values().all(Grants::is_empty) {
        out.push_str("no approvals\n");
    }
    for (name, grants) in &selected {
        if grants.is_empty() && only.is_none() {
            continue;
        }
        // (The trust file may have been edited by hand: invisible and control characters
        // are shown escaped.)
        out.push_str(&format!("{}:\n", display::escape(name)));
        for zone in &grants.zones {
            out.push_str(&format!(
                "  zone     {:<6} {}\n",
                zone.access.as_str(),
                display::escape(&zone.path.to_string())
            ));
        }
        for pattern in &grants.patterns {
            out.push_str(&format!(
                "  pattern         {}\n",
                display::escape(&pattern.to_string())
            ));
        }
        for host in &grants.hosts {
            out.push_str(&format!(
                "  host            {}\n",
                display::escape(&host.to_string())
            ));
        }
    }
    out!("{out}");
    Exit::Ok
}
